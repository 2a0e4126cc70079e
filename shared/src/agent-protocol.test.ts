import { describe, expect, it } from "vitest";
import { serverFramePayload, splitSignedFrame, withFrameSignature } from "./agent-protocol.ts";

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
  });
});
