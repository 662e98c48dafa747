// Types of sources.mjs (plain JavaScript so the build script can import it without tsx).

export declare function nodeBuiltin<T = unknown>(name: string): T | undefined;
export declare const WASM_URL: URL;
export declare const RELAXED_WASM_URL: URL;
export declare const STAMP_URL: URL;
export declare const SOURCE_DIR_URLS: readonly URL[];
export declare function sourcesHash(): string;
