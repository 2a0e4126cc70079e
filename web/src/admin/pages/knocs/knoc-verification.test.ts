import { describe, expect, it } from "vitest";
import { NONE_ID } from "@postern/shared";
import type { Knoc } from "@postern/shared";
import { edlCommand, shellQuote, verificationOf } from "./knoc-verification.ts";

/** A Knoc with only what the verification reads. */
const knoc = (over: Partial<Knoc>): Knoc =>
  ({
    ID: "k1",
    Kind: "LINUX",
    AgentName: "edge",
    AllowlistURL: "",
    Children: [],
    BackendConfig: { ipset: {} },
    AclConfig: { UriToken: "" },
    ...over,
  }) as Knoc;

describe("verificationOf", () => {
  it("lists each ipset set, and an nftables set in its table", () => {
    expect(verificationOf(knoc({ AclConfig: { UriToken: "", ipset: { V4SetName: "p4", V6SetName: "p6" } } }))).toEqual({
      check: "ipset",
      commands: ["sudo ipset list p4", "sudo ipset list p6"],
    });
    expect(
      verificationOf(
        knoc({
          BackendConfig: { nftables: {} },
          AclConfig: { UriToken: "", nftables: { Table: "inet postern", V4SetName: "", V6SetName: "v6" } },
        }),
      ).commands,
    ).toEqual(["sudo nft list set inet postern v6"]);
  });

  it("asks HAProxy's runtime API over a unix socket or tcp, and knocproxy by its ACL file", () => {
    const haproxy = (Protocol: "unix" | "tcp", Address: string) =>
      verificationOf(
        knoc({
          Kind: "PROXY",
          BackendConfig: { haproxy: { Protocol, Address } },
          AclConfig: { UriToken: "", haproxy: { ID: 3 } },
        }),
      ).commands;
    expect(haproxy("unix", "/var/run/haproxy.sock")).toEqual([
      "echo 'show acl #3' | sudo socat stdio /var/run/haproxy.sock",
    ]);
    expect(haproxy("tcp", "127.0.0.1:9999")).toEqual(["echo 'show acl #3' | socat stdio tcp:127.0.0.1:9999"]);
    expect(
      verificationOf(
        knoc({
          Kind: "PROXY",
          BackendConfig: { knocproxy: { Protocol: "unix", Address: "/run/h.sock" } },
          AclConfig: { UriToken: "", knocproxy: { Name: "web_app" } },
        }),
      ).commands,
    ).toEqual(["echo 'show acl /etc/haproxy/postern/web_app.acl' | sudo socat stdio /run/h.sock"]);
  });

  it("runs a script by hand the way the agent does; a webhook and a vendor script have no command", () => {
    const script = (Command: string, kind: Partial<Knoc>) =>
      verificationOf(
        knoc({
          ...kind,
          BackendConfig: { script: { Command, EnvVars: [] } },
          AclConfig: { UriToken: "", script: { Name: "jump", EnvVars: {} } },
        }),
      );
    expect(script("/opt/knoc it.sh", { Kind: "SCRIPT", ScriptType: "script" }).commands).toEqual([
      "sudo '/opt/knoc it.sh' add jump 192.0.2.10",
      "sudo '/opt/knoc it.sh' del jump 192.0.2.10",
    ]);
    expect(script("https://hooks.example/x", { Kind: "SCRIPT", ScriptType: "webhook" })).toEqual({
      check: "webhook",
      commands: [],
    });
    expect(script("/temp/juniper", { Kind: "APPLICATION", ApplicationType: "active" }).check).toBe("vendor");
  });

  it("fetches an allowlist with the API key only when a key reads it; Passive+ is the EDL check", () => {
    const url = "https://postern.example/api/v1/allowlists/k1/tok.txt";
    const allowlist = (ApiKeyId: string, ApplicationType: "passive" | "passive+") =>
      verificationOf(
        knoc({
          Kind: "APPLICATION",
          ApplicationType,
          AllowlistURL: url,
          BackendConfig: { allowlist: {} },
          AclConfig: {
            UriToken: "",
            allowlist: { Token: "tok", ApiKeyId, AllowAccessByIp: ApiKeyId === NONE_ID, AllowedIpAddresses: [] },
          },
        }),
      );
    expect(allowlist("5f0c6b1e-1111-4111-8111-111111111111", "passive").commands).toEqual([
      `curl --user "key:$POSTERN_API_KEY" ${url}`,
    ]);
    expect(allowlist(NONE_ID, "passive+")).toEqual({ check: "edl", commands: [`curl ${url}`] });
    expect(edlCommand("postern_edl")).toBe("request system external-list show type ip name postern_edl");
  });

  it("quotes shell arguments that need it", () => {
    expect(shellQuote("plain-name_1.2")).toBe("plain-name_1.2");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
});
