// Flat config: typescript-eslint's recommended rules over src/, test/ and renderer/.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

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
    // core/ is pure domain logic: it must not reach into the other layers.
    files: ["src/core/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: [
                "**/executor/**",
                "**/approval-server/**",
                "**/device/**",
                "**/electron/**",
                "**/ipc/**",
                "**/cli/**",
                "**/services.js",
                "electron",
              ],
              message: "src/core imports nothing from the other layers",
            },
          ],
        },
      ],
    },
  },
);
