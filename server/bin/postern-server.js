#!/usr/bin/env node
import { launch } from "../../scripts/launch.js";
await launch("server/src/main.ts");
