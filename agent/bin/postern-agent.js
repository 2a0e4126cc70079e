#!/usr/bin/env node
import { launch } from "../../scripts/launch.js";
await launch("agent/src/main.ts");
