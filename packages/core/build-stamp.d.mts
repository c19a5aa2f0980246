/** Types of build-stamp.mjs (plain JavaScript, so the bin can use it before anything is built). */
export declare const STAMP_FILE: string;
export declare function sourceStamp(pkgDir: string): string;
export declare function builtIsCurrent(pkgDir: string): boolean;
export declare function assertBuiltIsCurrent(moduleUrl: string): void;
