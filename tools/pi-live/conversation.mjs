// The two conversations the live test runs through a pi line (`<line>/pi.mjs` says how to reach
// it): produce writes what pi makes of a scripted exchange, consume shows what pi makes of files
// someone else wrote. Everything written is JSON.stringify of pi's own objects, or a byte copy of
// a file pi wrote: nothing is normalised. Fields that vary per run: session ids, entry ids and
// parentIds, entry and header timestamps, the header's cwd (the output folder), the timestamps pi
// stamps on messages itself (tool results; a system message 1.5's loop inserts to declare tools),
// and 1.5's durationMs on tool results and tool_execution_end.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  copyInto,
  ensureFolder,
  FAUX_OPTIONS,
  HarnessError,
  isolatePi,
  jsonlRecorder,
  NOTE_TOOL_PARAMETERS,
  parseArgs,
  readJsonFile,
  requireNode,
  runMain,
  SCRIPT,
  T0,
  writeJson,
} from "./common.mjs";

const FILES = {
  streamEvents: "assistant-message-events.jsonl",
  agentEvents: "agent-events.jsonl",
  session: "session.jsonl",
  context: "session-context.json",
  opened: "session.opened.jsonl",
  providerContext: "provider-context.json",
  report: "report.json",
};

/** Writes into OUT:
 *   assistant-message-events.jsonl  every AssistantMessageEvent of both model calls (pi-ai)
 *   agent-events.jsonl              every AgentEvent of the run (pi-agent-core's agentLoop)
 *   session.jsonl                   the session v3 file pi's SessionManager wrote (byte copy):
 *                                   every message appended at its message_end, as pi's
 *                                   coding agent does
 *   session-context.json            buildSessionContext() of that session
 *   report.json                     pi's and node's versions, the counts */
export async function produce(line, argv) {
  await runMain(`pi-live ${line.name} produce`, async () => {
    const { out } = parseArgs(argv, "produce.mjs OUT", []);
    const pi = await start(line, out);
    const { fauxAssistantMessage, fauxText, fauxThinking, fauxToolCall } = pi.ai;
    const faux = line.startFaux(pi, FAUX_OPTIONS, [
      fauxAssistantMessage(
        [
          fauxThinking(SCRIPT.thinking),
          fauxToolCall(SCRIPT.toolName, SCRIPT.toolArguments, { id: SCRIPT.toolCallId }),
        ],
        { stopReason: "toolUse", timestamp: T0 + 1000 },
      ),
      fauxAssistantMessage(fauxText(SCRIPT.answer), { timestamp: T0 + 3000 }),
    ]);
    const manager = pi.agent.SessionManager.create(out, ensureFolder(join(out, "work")));
    const user = { role: "user", content: SCRIPT.question, timestamp: T0 };
    const context = line.context(pi, SCRIPT.systemPrompt, [], [noteTool()]);
    const prompts = line.opening(pi, SCRIPT.systemPrompt, user);
    const run = await runTurn(pi, faux, prompts, context, manager);
    faux.close();

    run.streamEvents.write(join(out, FILES.streamEvents));
    run.agentEvents.write(join(out, FILES.agentEvents));
    copyInto(out, sessionFile(manager), FILES.session);
    const rebuilt = pi.agent.buildSessionContext(manager.getEntries(), manager.getLeafId());
    writeJson(join(out, FILES.context), rebuilt);
    writeJson(join(out, FILES.report), {
      pi: line.version,
      node: process.versions.node,
      assistantMessageEvents: run.streamEvents.count,
      agentEvents: run.agentEvents.count,
      sessionEntries: manager.getEntries().length,
      contextMessages: rebuilt.messages.length,
    });
  });
}

/** Given a session file (--session) and/or a JSON list of messages (--messages), written by
 * someone else, writes into OUT:
 *   session.opened.jsonl  the session file as it is on disk after SessionManager.open() (pi
 *                         opens a copy under OUT/work: the caller's file is never touched)
 *   session-context.json  buildSessionContext() of it, after pi's appendMessage() added the
 *                         --messages (to the opened session, or to a new one)
 *   provider-context.json the context the faux provider was sent for one more turn, with that
 *                         history before a new question: what pi kept of it
 *   agent-events.jsonl, assistant-message-events.jsonl  that turn's events
 *   session.jsonl         the session file after the turn
 *   report.json           pi's and node's versions, whether open() rewrote the file, the counts
 * Exits 1 with one line when pi refuses the input. */
export async function consume(line, argv) {
  await runMain(`pi-live ${line.name} consume`, async () => {
    const usage = "consume.mjs OUT [--session FILE] [--messages FILE]";
    const { out, options } = parseArgs(argv, usage, ["session", "messages"]);
    if (!options.session && !options.messages) throw new HarnessError(`usage: ${usage}`);
    const messages = options.messages ? readMessages(options.messages) : [];
    if (options.session && !existsSync(options.session)) {
      throw new HarnessError(`session ${options.session}: no such file`);
    }
    const pi = await start(line, out);
    const work = ensureFolder(join(out, "work"));
    const report = { pi: line.version, node: process.versions.node };
    let manager;
    if (options.session) {
      const input = readFileSync(options.session);
      const copy = copyInto(work, options.session, "session.jsonl");
      try {
        manager = pi.agent.SessionManager.open(copy, work);
      } catch (error) {
        throw new HarnessError(`session ${options.session}: pi cannot open it: ${error.message}`);
      }
      copyInto(out, copy, FILES.opened);
      report.rewritten = !input.equals(readFileSync(copy));
    } else {
      manager = pi.agent.SessionManager.create(out, work);
    }
    messages.forEach((message) => {
      manager.appendMessage(message);
    });
    const history = pi.agent.buildSessionContext(manager.getEntries(), manager.getLeafId());
    writeJson(join(out, FILES.context), history);

    let sentToProvider;
    const faux = line.startFaux(pi, FAUX_OPTIONS, [
      (providerContext) => {
        sentToProvider = JSON.stringify(providerContext);
        return pi.ai.fauxAssistantMessage(pi.ai.fauxText(SCRIPT.followUpAnswer), {
          timestamp: T0 + 6000,
        });
      },
    ]);
    const user = { role: "user", content: SCRIPT.followUp, timestamp: T0 + 5000 };
    const context = line.context(pi, SCRIPT.systemPrompt, history.messages, [noteTool()]);
    const run = await runTurn(pi, faux, [user], context, manager);
    faux.close();
    if (sentToProvider === undefined) throw new HarnessError("pi never called the model");

    run.streamEvents.write(join(out, FILES.streamEvents));
    run.agentEvents.write(join(out, FILES.agentEvents));
    copyInto(out, sessionFile(manager), FILES.session);
    writeJson(join(out, FILES.providerContext), JSON.parse(sentToProvider));
    writeJson(join(out, FILES.report), {
      ...report,
      historyMessages: history.messages.length,
      providerMessages: JSON.parse(sentToProvider).messages.length,
      sessionEntries: manager.getEntries().length,
    });
  });
}

async function start(line, out) {
  requireNode(line.folder, line.name);
  ensureFolder(out);
  isolatePi(out);
  return line.open();
}

/** The inline AgentTool the faux model calls: reads a note by name, always the same text. */
function noteTool() {
  return {
    name: SCRIPT.toolName,
    label: "Read note",
    description: "Read a note by its name.",
    parameters: NOTE_TOOL_PARAMETERS,
    async execute(_toolCallId, params) {
      return {
        content: [{ type: "text", text: SCRIPT.noteText }],
        details: { name: params.name, lines: SCRIPT.noteText.split("\n").length },
      };
    },
  };
}

/** One agent run: pi's agentLoop over `prompts`, each AgentEvent recorded, each finished
 * message appended to the session, each AssistantMessageEvent recorded on its way to the loop. */
async function runTurn(pi, faux, prompts, context, manager) {
  const streamEvents = jsonlRecorder();
  const agentEvents = jsonlRecorder();
  const config = { model: faux.model, convertToLlm: pi.agent.convertToLlm };
  const streamFn = teeStream(pi.ai, faux.streamFn, streamEvents);
  const loop = pi.core.agentLoop(prompts, context, config, undefined, streamFn);
  for await (const event of loop) {
    agentEvents.record(event);
    if (event.type === "message_end") manager.appendMessage(event.message);
  }
  const failed = JSON.parse(agentEvents.last).messages?.find((m) => m.stopReason === "error");
  if (failed) throw new HarnessError(`pi's model call failed: ${failed.errorMessage}`);
  return { streamEvents, agentEvents };
}

/** A StreamFn that passes every AssistantMessageEvent of `streamFn` on to the agent loop
 * unchanged, recording each one (stringified) as it passes. */
function teeStream(ai, streamFn, recorder) {
  return (model, context, options) => {
    const source = streamFn(model, context, options);
    const relay = ai.createAssistantMessageEventStream();
    (async () => {
      for await (const event of source) {
        recorder.record(event);
        relay.push(event);
      }
      relay.end();
    })().catch((error) => {
      throw new HarnessError(`pi's event stream broke: ${error?.message ?? error}`);
    });
    return relay;
  };
}

/** pi writes the file once the first assistant message exists. */
function sessionFile(manager) {
  const path = manager.getSessionFile();
  if (!path || !existsSync(path)) throw new HarnessError("pi wrote no session file");
  return path;
}

function readMessages(path) {
  const messages = readJsonFile(path, "messages");
  if (!Array.isArray(messages)) throw new HarnessError(`messages ${path}: not a JSON list`);
  messages.forEach((message, index) => {
    if (message === null || typeof message !== "object" || typeof message.role !== "string") {
      throw new HarnessError(`messages ${path}: /${index} is not a message (no role)`);
    }
  });
  return messages;
}
