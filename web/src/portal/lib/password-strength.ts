/**
 * Password strength in the browser (docs/reference.md user-portal §4 "Password strength levels 0 to 4", §5 "a
 * strength meter scores 0 to 4"), with the estimator and dictionaries the server scores with
 * (zxcvbn-ts, common and English), so the meter and the server's "Password is too weak" agree.
 * This module is large (the dictionaries): it is only ever imported dynamically, when the
 * change-password dialog opens.
 */
import { ZxcvbnFactory } from "@zxcvbn-ts/core";
import * as zxcvbnCommon from "@zxcvbn-ts/language-common";
import * as zxcvbnEn from "@zxcvbn-ts/language-en";
import type { StrengthScore } from "./password.ts";

let estimator: ZxcvbnFactory | undefined;

/** Scores `password` 0 (very weak) … 4 (very strong); `userInputs` (the user's name) count as known words. */
export function scorePassword(password: string, userInputs: readonly string[]): StrengthScore {
  estimator ??= new ZxcvbnFactory({
    dictionary: { ...zxcvbnCommon.dictionary, ...zxcvbnEn.dictionary },
    graphs: zxcvbnCommon.adjacencyGraphs,
    translations: zxcvbnEn.translations,
  });
  return estimator.check(
    password,
    userInputs.filter((s) => s !== ""),
  ).score;
}
