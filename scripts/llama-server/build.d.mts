// Types for build.mjs (imported by test/helpers/llama-server.ts).
export declare const NODE_LLAMA_CPP_VERSION: string;
export declare const CMAKE_OPTIONS: string[];
export declare const VOCABS: readonly ['qwen2', 'llama-bpe', 'llama-spm'];
export type Vocab = 'qwen2' | 'llama-bpe' | 'llama-spm';
export declare function cacheRoot(): string;
export declare function ensureLlamaServerBuild(): Promise<{ binary: string; src: string; release: string; dir: string }>;
export declare function pythonWithNumpy(): string;
export declare function ensureTinyModelFile(opts?: { vocab?: Vocab; endless?: boolean }): Promise<string>;
