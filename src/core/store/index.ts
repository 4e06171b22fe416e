export * from "./atomic-write.js";
export * from "./file-lock.js";
export * from "./json-file.js";
export * from "./file-watch.js";
export * from "./write-error.js";
