import { describe, expect, it } from "vitest";
import {
  serverFramePayload,
  serverFramePrefix,
  splitMacFrame,
  splitSignedFrame,
  withFrameMac,
  withFrameSignature,
} from "./agent-protocol.ts";

describe("signed server frames", () => {
  const body = JSON.stringify({ type: "welcome", agentId: "a", serverTime: 1, note: ',"sig":"x"}' });

  it("appends the signature as the last member and splits it off again, exactly", () => {
    const framed = withFrameSignature(body, "c2lnbmF0dXJl+/==");
    expect(JSON.parse(framed)).toMatchObject({ type: "welcome", sig: "c2lnbmF0dXJl+/==" });
    expect(splitSignedFrame(framed)).toEqual({ body, signature: "c2lnbmF0dXJl+/==" });
  });

  it("finds no signature in unsigned or malformed frames", () => {
    expect(splitSignedFrame(body)).toBeNull();
    expect(splitSignedFrame('{"type":"welcome","sig":"not base64!"}')).toBeNull();
    expect(splitSignedFrame('{"sig":"abc"}')).toBeNull(); // no member before it: not a frame the server makes
  });

  it("binds the signed text to the nonce, the position and the body's digest", () => {
    expect(serverFramePayload("nonce-1", 3, "ab12")).toBe("postern-server:nonce-1:3:ab12");
    expect(serverFramePrefix("nonce-1", 3)).toBe("postern-server:nonce-1:3:");
  });
});

describe("MAC'd server frames", () => {
  const body = JSON.stringify({ type: "apply", seq: 1, ops: [], note: ',"mac":"x"}' });

  it("appends the MAC as the last member and splits it off again, exactly", () => {
    const framed = withFrameMac(body, "bWFj+/==");
    expect(JSON.parse(framed)).toMatchObject({ type: "apply", mac: "bWFj+/==" });
    expect(splitMacFrame(framed)).toEqual({ body, mac: "bWFj+/==" });
  });

  it("does not take a signed frame for a MAC'd one, nor the other way round", () => {
    expect(splitMacFrame(withFrameSignature(body, "c2ln"))).toBeNull();
    expect(splitSignedFrame(withFrameMac(body, "bWFj"))).toBeNull();
    expect(splitMacFrame(body)).toBeNull();
    expect(splitMacFrame('{"type":"apply","mac":"not base64!"}')).toBeNull();
  });
});
