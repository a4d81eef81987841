// How the harness reaches pi 0.73.1 (@mariozechner/*): its public exports only, loaded after
// common.mjs's isolatePi has set the environment. conversation.mjs drives the line through this.
import { fileURLToPath } from "node:url";

export const line = {
  name: "0.73",
  version: "0.73.1",
  folder: fileURLToPath(new URL(".", import.meta.url)),

  /** pi-ai, pi-agent-core and pi-coding-agent's exports, loaded now (not at module load). */
  async open() {
    const [ai, core, agent] = await Promise.all([
      import("@mariozechner/pi-ai"),
      import("@mariozechner/pi-agent-core"),
      import("@mariozechner/pi-coding-agent"),
    ]);
    return { ai, core, agent };
  },

  /** The faux provider in pi-ai's global registry, answering with `steps` in turn. */
  startFaux(pi, options, steps) {
    const faux = pi.ai.registerFauxProvider(options);
    faux.setResponses(steps);
    return { model: faux.getModel(), streamFn: pi.ai.streamSimple, close: () => faux.unregister() };
  },

  /** 0.73 keeps the system prompt outside the transcript, in the agent context. */
  opening(_pi, _systemPrompt, user) {
    return [user];
  },

  context(_pi, systemPrompt, messages, tools) {
    return { systemPrompt, messages, tools };
  },
};
