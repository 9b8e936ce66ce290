// ESLint for the browser's modules (src/clashofdecks/web/static/) and their unit tests (tests/js/):
// `make js-check` (docs/web.md, "Code").  The rules the project holds Python to hold here too: no
// function over 80 lines, nothing undefined or unused, strict equality.
import js from "@eslint/js";
import globals from "globals";

export default [
  // Only the browser code and its tests: never a virtualenv's or a build's JavaScript.
  { ignores: [".venv/**", "build/**", "dist/**", "node_modules/**", "docs/**"] },
  js.configs.recommended,
  {
    files: ["src/clashofdecks/web/static/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.browser },
  },
  {
    files: ["tests/js/**/*.js", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.node },
  },
  {
    rules: {
      "max-lines-per-function": ["error", { max: 80, skipBlankLines: false, skipComments: false }],
      "no-undef": "error",
      "no-unused-vars": ["error", { args: "after-used", caughtErrors: "all" }],
      eqeqeq: ["error", "always"],
      "no-var": "error",
      "prefer-const": "error",
      "no-implicit-globals": "error",
      "no-shadow": "error",
    },
  },
];
