// A scripted stand-in for an OpenAI client, so that agents run offline.
//
// new ScriptedOpenAI(maxTurns).chat.completions.create({ model, messages })
// answers like the openai package's client, with a ChatCompletion. The reply
// for turn n is SCRIPT[n-1]; before answering, the script checks that the
// prompt holds what a model would need to write that reply (the error it
// fixes, the output it reads), so a prompt that lacks it fails the run.
import type { ChatCompletion, ChatCompletionMessageParam } from "openai/resources/chat/completions";

export class UnexpectedPrompt extends Error {}

export const MISSION = "What was the revenue in the quarter data/quarter names? Return it with the report's title.";

const SCRIPT: { program: string; expect: string[]; absent?: string[] }[] = [
  {
    program: '(def hits (tool/search {:query data/quarter}))\n(println "found" (count hits))\n(mapv :id hits)',
    expect: [MISSION, "tool/search(query string)", "data/quarter"],
  },
  // A mistake: read takes :id. The tool throws and the turn fails.
  { program: "(def doc (tool/read {:doc-id (first *1)}))", expect: ["found 1", "hits"] },
  // The prompt shows the error; *1 is still turn 1's result.
  { program: '(def doc (tool/read {:id (first *1)}))\n(println "title:" (:title doc))\n(:revenue doc)', expect: ["read needs :id"] },
  { program: "(return {:quarter data/quarter, :revenue *1, :title (:title doc)})", expect: ["title: Q3 report", "doc"], absent: ["read needs :id"] },
];

/** The turn a prompt is for, from the turns indicator it ends with. */
function turnOf(user: string, maxTurns: number): number {
  const left = /Turns left: (\d+)/.exec(user);
  if (!left) throw new UnexpectedPrompt(`no turns indicator in the prompt:\n${user}`);
  return maxTurns - Number(left[1]) + 1;
}

export class ScriptedOpenAI {
  readonly chat = {
    completions: {
      create: async (body: { model: string; messages: ChatCompletionMessageParam[] }, options: { signal?: AbortSignal } = {}): Promise<ChatCompletion> => {
        options.signal?.throwIfAborted();
        const { messages } = body;
        if (messages.map((m) => m.role).join() !== "system,user" || typeof messages[1].content !== "string") {
          throw new UnexpectedPrompt(`messages are not [system, user] with text: ${JSON.stringify(messages)}`);
        }
        const user = messages[1].content;
        const n = turnOf(user, this.maxTurns);
        const step = SCRIPT[n - 1];
        if (!step) throw new UnexpectedPrompt(`turn ${n}: the script has ${SCRIPT.length} replies`);
        for (const text of step.expect) if (!user.includes(text)) throw new UnexpectedPrompt(`turn ${n}: the prompt lacks ${JSON.stringify(text)}:\n${user}`);
        for (const text of step.absent ?? []) if (user.includes(text)) throw new UnexpectedPrompt(`turn ${n}: the prompt still holds ${JSON.stringify(text)}:\n${user}`);
        return {
          id: `chatcmpl-${n}`,
          object: "chat.completion",
          created: 0,
          model: body.model,
          choices: [{ index: 0, finish_reason: "stop", logprobs: null, message: { role: "assistant", content: `Turn ${n}.\n\n\`\`\`clojure\n${step.program}\n\`\`\``, refusal: null } }],
        };
      },
    },
  };

  constructor(private readonly maxTurns: number) {}
}
