// What both pi lines' harness scripts share, with no pi import: the conversation they script,
// argument parsing, writing pi's objects exactly as JSON.stringify gives them, and the one-line
// failure every script ends with when pi (or its input) goes wrong.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";

/** Fixed message timestamps (Unix ms) for the messages the harness builds itself; pi stamps the
 * rest (tool results, entries, headers) with the wall clock. */
export const T0 = 1704067200000; // 2024-01-01T00:00:00.000Z: in the past, so pi times no faux reply

/** The scripted conversation: one user question, a reply that thinks and calls the tool, the
 * tool's result, a final answer; consume adds one more question and answer. */
export const SCRIPT = {
  systemPrompt: "You are pi-live, phi-wire's interoperability harness. Answer from the notes.",
  question: "What does the note called todo say?",
  thinking: "The user wants the todo note; read it with the read_note tool.",
  toolCallId: "call_read_note_1",
  toolName: "read_note",
  toolArguments: { name: "todo" },
  noteText: "buy milk\nwater the plants",
  answer: "The todo note says: buy milk, and water the plants.",
  followUp: "Thanks. Anything else?",
  followUpAnswer: "Nothing else is in the notes.",
};

/** The inline tool's parameters: plain JSON Schema, which both lines accept for a tool. */
export const NOTE_TOOL_PARAMETERS = {
  type: "object",
  properties: { name: { type: "string", description: "the note's name" } },
  required: ["name"],
  additionalProperties: false,
};

/** The faux provider's options: a fixed api name (the default adds a random suffix), one
 * reasoning model, fixed 2-token chunks (the default is random 3-5), fast. */
export const FAUX_OPTIONS = {
  api: "faux",
  provider: "faux",
  models: [{ id: "faux-reasoner", name: "Faux Reasoner", reasoning: true }],
  tokensPerSecond: 1e6,
  tokenSize: { min: 2, max: 2 },
};

export class HarnessError extends Error {}

/** `--flag value` pairs after one positional output folder; unknown flags are an error. */
export function parseArgs(argv, usage, flags) {
  const options = {};
  const positional = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg.startsWith("--")) {
      const name = arg.slice(2);
      if (!flags.includes(name) || i + 1 >= argv.length) throw new HarnessError(`usage: ${usage}`);
      options[name] = argv[(i += 1)];
    } else {
      positional.push(arg);
    }
  }
  if (positional.length !== 1) throw new HarnessError(`usage: ${usage}`);
  return { out: resolve(positional[0]), options };
}

/** pi's writer: JSON.stringify with no replacer or indent; JSONL lines end with \n. */
export function writeJson(path, value) {
  writeFileSync(path, JSON.stringify(value));
}

/** A recorder of one event stream: each event stringified when it arrives (pi's partials are
 * live objects that later deltas change), written as JSONL at the end. */
export function jsonlRecorder() {
  const lines = [];
  return {
    record(value) {
      lines.push(JSON.stringify(value));
    },
    get count() {
      return lines.length;
    },
    get last() {
      return lines.at(-1);
    },
    write(path) {
      writeFileSync(path, lines.map((line) => `${line}\n`).join(""));
    },
  };
}

export function ensureFolder(path) {
  mkdirSync(path, { recursive: true });
  return path;
}

export function readJsonFile(path, what) {
  let text;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new HarnessError(`${what} ${path}: cannot read it (${error.code ?? error.message})`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HarnessError(`${what} ${path}: not JSON (${error.message})`);
  }
}

/** A byte copy of a file into the output folder; the copy's path. */
export function copyInto(out, path, name = basename(path)) {
  const target = join(out, name);
  copyFileSync(path, target);
  return target;
}

/** Keeps pi away from the user's ~/.pi and the network (set before pi is imported: its config
 * reads the environment at import time). */
export function isolatePi(out) {
  process.env.PI_OFFLINE = "1";
  process.env.PI_CODING_AGENT_DIR ??= join(out, ".pi-agent");
}

/** The node a line needs: its package.json's engines.node (">=major.minor.patch"). */
export function requiredNode(lineFolder) {
  const engines = readJsonFile(join(lineFolder, "package.json"), "package.json").engines?.node;
  const found = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(engines ?? "");
  if (!found) throw new HarnessError(`${lineFolder}/package.json: engines.node is not ">=x.y.z"`);
  return found.slice(1).map(Number);
}

/** Whether this node is at least `minimum` ([major, minor, patch]). */
export function nodeSatisfies(minimum) {
  const have = process.versions.node.split(".").map(Number);
  const differs = have.findIndex((part, index) => part !== minimum[index]);
  return differs === -1 || have[differs] > minimum[differs];
}

/** The line's engines, checked before pi is imported, so a wrong node is one clear line. */
export function requireNode(lineFolder, line) {
  const minimum = requiredNode(lineFolder);
  if (!nodeSatisfies(minimum)) {
    throw new HarnessError(
      `pi ${line} needs node >= ${minimum.join(".")}, this is ${process.versions.node} ` +
        `(${process.execPath}); tools/pi-live/run picks one, make pi-live installs it`,
    );
  }
}

/** Runs a script's main: any failure (also one escaping into a callback) becomes one line on
 * stderr and exit status 1. */
export async function runMain(name, main) {
  const fail = (error) => {
    const message =
      error instanceof HarnessError
        ? error.message
        : `pi failed: ${error?.name}: ${error?.message ?? error}`;
    process.stderr.write(`${name}: ${message.replaceAll("\n", " ")}\n`);
    process.exit(1);
  };
  process.on("uncaughtException", fail);
  process.on("unhandledRejection", fail);
  try {
    await main();
  } catch (error) {
    fail(error);
  }
}
