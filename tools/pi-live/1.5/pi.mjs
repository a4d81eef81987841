// How the harness reaches pi 1.5.2 (@earendil-works/*): its public exports only, loaded after
// common.mjs's isolatePi has set the environment. conversation.mjs drives the line through this.
import { fileURLToPath } from "node:url";

export const line = {
  name: "1.5",
  version: "1.5.2",
  folder: fileURLToPath(new URL(".", import.meta.url)),

  /** pi-ai, pi-agent-core and pi-coding-agent's exports, loaded now (not at module load). */
  async open() {
    const [ai, core, agent] = await Promise.all([
      import("@earendil-works/pi-ai"),
      import("@earendil-works/pi-agent-core"),
      import("@earendil-works/pi-coding-agent"),
    ]);
    return { ai, core, agent };
  },

  /** 1.5 has no global registry: the faux provider goes into a Models collection, and the agent
   * loop streams through that collection. */
  startFaux(pi, options, steps) {
    const faux = pi.ai.fauxProvider(options);
    const models = pi.ai.createModels();
    models.setProvider(faux.provider);
    faux.setResponses(steps);
    const streamFn = (model, context, streamOptions) =>
      models.streamSimple(model, context, streamOptions);
    const close = () => models.deleteProvider(faux.provider.id);
    return { model: faux.getModel(), streamFn, close };
  },

  /** 1.5's system prompt is the transcript's first message (pi's own constructor builds it); the
   * agent loop adds the tool declarations to it before the request. */
  opening(pi, systemPrompt, user) {
    return [pi.ai.createInitialSystemMessage(systemPrompt, undefined), user];
  },

  context(_pi, _systemPrompt, messages, tools) {
    return { messages, tools };
  },
};
