import { stageAgentTree, stageServerTree } from "./package/trees.ts";
const split = process.argv[2] !== "single";
const out = process.argv[3]!;
await stageAgentTree(process.cwd(), out + "/agent", { splitting: split });
await stageServerTree(process.cwd(), out, "0.1.0", { splitting: split });
