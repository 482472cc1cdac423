// The linter (npm run lint, run by npm test and npm run test:quick right after the type
// check): ESLint's recommended rules, typescript-eslint's type-aware recommended rules and
// React's rules of hooks, with no warning left (--max-warnings 0). docs/development.md says
// how to run it and how to silence one line where the code is right and a rule cannot know.
import comments from '@eslint-community/eslint-plugin-eslint-comments/configs'
import js from '@eslint/js'
import { defineConfig, globalIgnores } from 'eslint/config'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default defineConfig(
  globalIgnores([
    'dist/',
    'coverage/',
    'data/',
    '.tap/',
    'tmp/',
    // Written by proto/generate.mjs, never by hand: its output is checked by `--check`, not linted.
    'proto/**/*_pb.ts',
    'proto/**/*_service.ts'
  ]),
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  // No blanket disable: every eslint-disable names its rules, is closed in the file it opens
  // (so none covers a whole file), and says why after `--`.
  comments.recommended,
  {
    languageOptions: {
      parserOptions: {
        // One project service for every file: each file is checked with the tsconfig.json
        // nearest to it, as the type check and an editor do (server/ without the DOM, …).
        projectService: {
          // The files that no tsconfig.json beside them includes: the build's entry and
          // CI's scripts (checked by build/tsconfig.json, whose options they borrow) and this file.
          allowDefaultProject: ['build.mjs', '.ci/*.mjs', 'eslint.config.js'],
          defaultProject: 'build/tsconfig.json'
        },
        tsconfigRootDir: import.meta.dirname
      },
      globals: globals.node
    },
    linterOptions: {
      reportUnusedDisableDirectives: 'error'
    },
    rules: {
      '@eslint-community/eslint-comments/require-description': ['error', { ignore: ['eslint-enable'] }],
      // Off: an async function without an await is how this code keeps a contract: Fastify's
      // plugins, hooks and handlers answer through the promise they return (a plugin without
      // async would need the `done` callback), and an in-memory store implements the same async
      // interface as the Redis or SQL one. Removing `async` would also turn a throw into a
      // synchronous exception where callers expect a rejected promise.
      '@typescript-eslint/require-await': 'off',
      // A value caught (unknown) may be passed on as it came: catch (error) { reject(error) }.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // Unused names fail the type check already (noUnusedLocals); this rule adds what tsc
      // does not see (unused parameters at the end, unused caught errors) with the same
      // escape as TypeScript's: a name starting with an underscore.
      '@typescript-eslint/no-unused-vars': ['error', {
        argsIgnorePattern: '^_',
        varsIgnorePattern: '^_',
        caughtErrorsIgnorePattern: '^_'
      }]
    }
  },
  {
    files: ['client/**/*.{ts,tsx}', 'test/client/**/*.{ts,tsx}', 'test/fixtures/**/*.tsx'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: globals.browser },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error'
    }
  },
  {
    // JavaScript files (the build, the benchmarks, the proto generator, the test loaders): their
    // types come from JSDoc, which the type check reads (checkJs) but typescript-eslint does
    // not: it cannot see a JSDoc cast, /** @type {T} */ (JSON.parse(text)), so a value read
    // from JSON stays `any` to it however it is typed (typescript-eslint issue 4824, "working
    // as intended"). The TypeScript sources keep the whole family.
    files: ['**/*.{js,mjs,cjs}'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off'
    }
  },
  {
    // The CommonJS file that hands @fastify/reply-from part of undici (the file says why):
    // CommonJS loads with require().
    files: ['**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' }
  },
  {
    // Some benchmark scripts run a function inside the page they measure (page.evaluate).
    files: ['bench/**/*.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } }
  },
  {
    files: ['test/**/*.{ts,tsx,mjs}'],
    rules: {
      // Tests read answers as `any` on purpose (JSON.parse, response.json(), a page's
      // evaluate) and check their shape with tap's matchers, which fail the test at run time
      // where a type would only have been asserted. The source keeps the full set.
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // tap's t.test() returns a promise that tap itself holds the parent test open for
      // (PromiseWithSubtest): a subtest left unawaited still runs, in order, and its failure
      // fails the file. Awaiting each would change nothing but add ~1,400 awaits.
      '@typescript-eslint/no-floating-promises': ['error', {
        allowForKnownSafePromises: [{ from: 'package', name: 'PromiseWithSubtest', package: '@tapjs/core' }]
      }]
    }
  }
)
