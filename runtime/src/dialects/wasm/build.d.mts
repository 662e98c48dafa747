// Types of build.mjs, the wasm dialect's build script (plain JavaScript so `npm install` can run it without tsx).

export declare const SOURCE_DIRS: readonly string[];
export declare const OUT_DIR: string;
export declare const WASM: string;
export declare const RELAXED_WASM: string;
export declare const STAMP: string;
export declare function sourcesHash(): string;
export declare function buildWasm(): Promise<string>;
