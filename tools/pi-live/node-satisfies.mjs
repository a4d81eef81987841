// Exit 0 when the node running this satisfies the engines.node of the pi-live line folder given
// (tools/pi-live/<line>), else 1: the Makefile asks it whether node 22 must come from the npm
// registry, and `run` which node runs a line, so both follow the line's package.json.
// Usage: node node-satisfies.mjs LINE_FOLDER
import { nodeSatisfies, requiredNode } from "./common.mjs";

process.exitCode = nodeSatisfies(requiredNode(process.argv[2])) ? 0 : 1;
