import { describe, expect, it } from 'vitest';
import { estimatedParameters, tooSmallToAnswer } from '../../src/core/models/capability';

const chat = (bytes: number, quantization: string | null) => ({ kind: 'chat', format: 'gguf', bytes, quantization });

describe('a chat model too small to answer', () => {
  it('is told by its size and quantization: SmolLM2-135M and a 0.5B model are, 1.5B and 3B models are not', () => {
    // SmolLM2-135M-Instruct.Q4_1.gguf as the test models fetch it.
    expect(estimatedParameters(98_362_432, 'Q4_1')).toBeGreaterThan(100e6);
    expect(estimatedParameters(98_362_432, 'Q4_1')).toBeLessThan(200e6);
    expect(tooSmallToAnswer(chat(98_362_432, 'Q4_1'))).toBe(true);
    expect(tooSmallToAnswer(chat(531_000_000, 'Q8_0'))).toBe(true); // Qwen2.5-0.5B
    expect(tooSmallToAnswer(chat(986_000_000, 'Q4_K_M'))).toBe(false); // Qwen2.5-1.5B
    expect(tooSmallToAnswer(chat(1_930_000_000, 'Q4_K_M'))).toBe(false); // a 3B model
    expect(tooSmallToAnswer(chat(2_470_000_000, 'F16'))).toBe(false); // 1.2B at 16 bits
  });

  it('only local chat models are judged', () => {
    expect(tooSmallToAnswer({ kind: 'embedding', format: 'onnx', bytes: 23_000_000, quantization: 'q8' })).toBe(false);
    expect(tooSmallToAnswer({ kind: 'chat', format: 'onnx', bytes: 23_000_000, quantization: null })).toBe(false);
  });
});
