// Flat config: typescript-eslint's recommended rules over src/, test/ and renderer/.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

// Layers src/core never imports (architecture.md "Rules of the house").
const LAYERS = {
  group: [
    "**/executor/**",
    "**/approval-server/**",
    "**/device/**",
    "**/electron/**",
    "**/ipc/**",
    "**/cli/**",
    "**/services.js",
    "**/demo-backend/**",
    "electron",
  ],
  message: "src/core imports nothing from the other layers",
};

// Product code (src/, renderer/) never imports the tests.
const NO_TEST = {
  group: ["**/test/**"],
  message: "product code does not import test/ (shared parts live in src/, e.g. src/demo-backend)",
};

const modules = (names, message) =>
  names.flatMap((name) => [name, `node:${name}`]).map((name) => ({ name, message }));

// Files and watching: only in src/core/**/io/ and src/core/store/.
const FILE_IO = modules(
  ["fs", "fs/promises"],
  "pure core code does no file I/O: take the data or a reader as a parameter, or put the file work in an io/ folder",
).concat([{ name: "chokidar", message: "watchers live in an io/ folder" }]);

// Network and processes: never in src/core (services in src/device, src/executor do them).
const NETWORK = modules(
  ["net", "http", "https", "http2", "dgram", "tls", "dns", "child_process"],
  "src/core opens no sockets and runs no programs: do it in a service (src/device, src/executor) and pass the result in",
).concat([{ name: "socket.io-client", message: "the backend connection lives in src/device" }]);

const GLOBAL_IO = [
  {
    name: "fetch",
    message: "src/core does no network I/O: the download service is src/device/package-download.ts",
  },
  {
    name: "setTimeout",
    message: "pure core code keeps no timers: take a clock or a scheduler as a parameter",
  },
  {
    name: "setInterval",
    message: "pure core code keeps no timers: take a clock or a scheduler as a parameter",
  },
  { name: "setImmediate", message: "pure core code keeps no timers" },
];
const PROPERTY_IO = [
  { object: "AbortSignal", property: "timeout", message: "pure core code keeps no timers" },
  { object: "globalThis", property: "fetch", message: "src/core does no network I/O" },
  { object: "globalThis", property: "setTimeout", message: "pure core code keeps no timers" },
  { object: "globalThis", property: "setInterval", message: "pure core code keeps no timers" },
];

// The I/O parts of src/core, excluded from the purity rule (see the README there).
const CORE_IO = ["src/core/**/io/**", "src/core/store/**"];

export default tseslint.config(
  { ignores: ["node_modules/", "dist/", "renderer/dist/", "release/", "test-results/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        Buffer: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        URL: "readonly",
        window: "readonly",
        document: "readonly",
        setImmediate: "readonly",
        AbortController: "readonly",
        TextEncoder: "readonly",
        TextDecoder: "readonly",
        navigator: "readonly",
        fetch: "readonly",
      },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  {
    // Core purity (docs/decisions.md "Core purity", src/core/README.md): every file in src/core is
    // pure decision code — no file system, no network, no child processes, no timers — unless it sits
    // in an `io/` folder or in `store/` (the atomic file store). Those read and write files under the
    // paths they are given, and may wait; they never open a socket or run a program either. And core
    // never reaches into the other layers.
    files: ["src/core/**/*.ts"],
    ignores: CORE_IO,
    rules: {
      "no-restricted-imports": ["error", { paths: [...FILE_IO, ...NETWORK], patterns: [LAYERS, NO_TEST] }],
      "no-restricted-globals": ["error", ...GLOBAL_IO],
      "no-restricted-properties": ["error", ...PROPERTY_IO],
    },
  },
  {
    files: CORE_IO,
    rules: {
      "no-restricted-imports": ["error", { paths: NETWORK, patterns: [LAYERS, NO_TEST] }],
      "no-restricted-globals": ["error", ...GLOBAL_IO.filter((g) => g.name === "fetch")],
      "no-restricted-properties": ["error", ...PROPERTY_IO.filter((p) => p.property === "fetch")],
    },
  },
  {
    // The launcher is CommonJS (bin/package.json): a one-shot command never starts the ES module loader.
    files: ["bin/**/*.js"],
    languageOptions: {
      sourceType: "commonjs",
      globals: { require: "readonly", module: "writable", __dirname: "readonly", __filename: "readonly" },
    },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    // Product code never imports the tests (the demo backend lives in src/demo-backend).
    files: ["src/**/*.ts", "renderer/**/*.ts", "renderer/**/*.tsx"],
    ignores: ["src/core/**"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [NO_TEST] }],
    },
  },
);
