import { describe, expect, it } from "vitest";
import { paginatorItems } from "./paginator.ts";

describe("paginatorItems (admin-console §2, §9: all pages up to 8)", () => {
  it("shows every page when there are 8 or fewer", () => {
    expect(paginatorItems(0, 1)).toEqual([]);
    expect(paginatorItems(1, 1)).toEqual([1]);
    expect(paginatorItems(8, 5)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
  it("abbreviates above 8 with an ellipsis for each gap", () => {
    expect(paginatorItems(9, 1)).toEqual([1, 2, "…", 9]);
    expect(paginatorItems(20, 10)).toEqual([1, "…", 9, 10, 11, "…", 20]);
    expect(paginatorItems(20, 3)).toEqual([1, 2, 3, 4, "…", 20]);
    expect(paginatorItems(20, 20)).toEqual([1, "…", 19, 20]);
  });
});
