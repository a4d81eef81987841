// pi 0.73 reads what someone else wrote: see conversation.mjs's consume.
// Usage: node consume.mjs OUT [--session FILE] [--messages FILE]
import { consume } from "../conversation.mjs";
import { line } from "./pi.mjs";

await consume(line, process.argv.slice(2));
