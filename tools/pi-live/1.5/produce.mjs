// pi 1.5 writes a conversation: see conversation.mjs's produce for what lands in OUT.
// Usage: node produce.mjs OUT
import { produce } from "../conversation.mjs";
import { line } from "./pi.mjs";

await produce(line, process.argv.slice(2));
