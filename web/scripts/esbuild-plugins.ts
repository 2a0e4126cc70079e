/**
 * esbuild plugins for the portal build (docs/reference.md design "Shape": lingui compiled through a small Babel step).
 */
import { readFile } from "node:fs/promises";
import { transformAsync } from "@babel/core";
import linguiMacro from "@lingui/babel-plugin-lingui-macro";
import type { LinguiConfigNormalized } from "@lingui/conf";
import type { Loader, Plugin } from "esbuild";

const MACRO_IMPORT = /from\s+["']@lingui\/(core|react)\/macro["']/;

/**
 * Runs Babel with `@lingui/babel-plugin-lingui-macro` on source files that import a lingui macro
 * (`@lingui/core/macro`, `@lingui/react/macro`). Babel only parses TypeScript/JSX and prints it
 * back; esbuild then strips types and compiles JSX. Files without macros skip Babel entirely.
 * Descriptors keep only the generated message id (`id-only`), so source texts stay out of the bundle.
 */
export function linguiMacroPlugin(linguiConfig: LinguiConfigNormalized): Plugin {
  return {
    name: "lingui-macro",
    setup(build) {
      build.onLoad({ filter: /\/web\/src\/.*\.[jt]sx?$/ }, async (args) => {
        const source = await readFile(args.path, "utf8");
        const loader = (args.path.endsWith("x") ? "tsx" : "ts") satisfies Loader;
        if (!MACRO_IMPORT.test(source)) return { contents: source, loader };
        const result = await transformAsync(source, {
          filename: args.path,
          babelrc: false,
          configFile: false,
          sourceMaps: false,
          compact: false,
          retainLines: true,
          parserOpts: { plugins: ["typescript", "jsx"] },
          plugins: [[linguiMacro, { linguiConfig, descriptorFields: "id-only" }]],
        });
        if (result?.code == null) throw new Error(`lingui macro: no output for ${args.path}`);
        return { contents: result.code, loader };
      });
    },
  };
}

/**
 * Marks the modules of `@postern/shared` as free of side effects so esbuild keeps only what the
 * browser imports (status codes, limits, types). Without it the barrel pulls zod and ipaddr.js
 * (~90 KB gzip), well over the dashboard budget of 150 KB gzip (docs/reference.md design "Performance targets").
 */
export function sharedTreeShakingPlugin(): Plugin {
  return {
    name: "shared-tree-shaking",
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === "shared-tree-shaking") return undefined;
        const fromShared = args.importer.includes("/shared/src/");
        if (!fromShared && !args.path.startsWith("@postern/shared")) return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: "shared-tree-shaking",
        });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        return resolved.path.includes("/shared/src/") ? { ...resolved, sideEffects: false } : resolved;
      });
    },
  };
}
