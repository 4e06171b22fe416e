// `node --import <this file> …`: makes `import electron from "electron"` load the fake.
import { register } from "node:module";

register("./hooks.mjs", import.meta.url);
