import { MockLanguageModelV4 } from 'ai/test';

/** An ai SDK test model that streams `replies` in turn, one per call, each as plain text (10 input / 5 output tokens); '' once they run out. */
export function textReplyModel(replies: string[]): MockLanguageModelV4 {
  let i = 0;
  return new MockLanguageModelV4({
    doStream: async () => {
      const text = replies[i++] ?? '';
      return {
        stream: new ReadableStream({
          start(ctrl) {
            ctrl.enqueue({ type: 'stream-start', warnings: [] });
            ctrl.enqueue({ type: 'text-start', id: '1' });
            ctrl.enqueue({ type: 'text-delta', id: '1', delta: text });
            ctrl.enqueue({ type: 'text-end', id: '1' });
            ctrl.enqueue({
              type: 'finish',
              finishReason: { unified: 'stop', raw: 'stop' },
              usage: {
                inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
                outputTokens: { total: 5, text: 5, reasoning: undefined },
              },
            });
            ctrl.close();
          },
        }),
      };
    },
  });
}
