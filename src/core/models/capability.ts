/**
 * Whether a local chat model can write answers worth waiting for. A GGUF does not always say how
 * many parameters it has; its size and quantization do (bits per weight of the llama.cpp types).
 * Under about a billion parameters a model cannot follow the agent's steps: a question that names
 * no model gets the passages ("Find passages") instead, and Settings says why.
 */

/** Approximate bits per weight of llama.cpp's file types, by prefix (K-quants carry scales). */
const BITS: [RegExp, number][] = [
  [/^(F32|ALL_F32)/i, 32],
  [/^(F16|BF16|MOSTLY_F16|MOSTLY_BF16)/i, 16],
  [/Q8/i, 8.5],
  [/Q6/i, 6.6],
  [/Q5/i, 5.5],
  [/Q4/i, 4.8],
  [/Q3/i, 3.9],
  [/(Q2|IQ2|IQ1)/i, 2.8],
];

/** Parameters a chat model under this makes answers not worth waiting for. */
export const MIN_ANSWERING_PARAMETERS = 1e9;

/** Estimated parameters of a GGUF of `bytes` in `quantization` (4.8 bits a weight when it is unknown). */
export function estimatedParameters(bytes: number, quantization: string | null): number {
  const bits = BITS.find(([re]) => re.test(quantization ?? ''))?.[1] ?? 4.8;
  return (bytes * 8) / bits;
}

/** A local chat model too small to answer: under MIN_ANSWERING_PARAMETERS by its size. */
export function tooSmallToAnswer(model: {
  kind: string;
  format: string;
  bytes: number;
  quantization: string | null;
}): boolean {
  return (
    model.kind === 'chat' &&
    model.format === 'gguf' &&
    estimatedParameters(model.bytes, model.quantization) < MIN_ANSWERING_PARAMETERS
  );
}
