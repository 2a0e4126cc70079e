#!/usr/bin/env node
import { launch } from "../../scripts/launch.js";
await launch("cli/src/main.ts");
