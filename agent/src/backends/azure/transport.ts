/**
 * The Azure SDK's HTTP transport over the agent's HTTP boundary (issue #10 item 3): an
 * `@azure/core-rest-pipeline` `HttpClient` that sends every request of `@azure/identity` (the token
 * call) and `@azure/arm-network` (the ARM calls) through the agent's `HttpClient`. So the SDK follows
 * the agent's HTTP options (timeouts, extra CA certificates) and unit tests see its traffic at the one
 * boundary. The SDK's own policies (bearer token, retries, long-running operation polling) stay.
 *
 * Bodies are text (JSON and form-encoded requests, JSON answers); a streamed or multipart body is
 * refused. Imported by the Azure driver only, on first use.
 */
import { createHttpHeaders, RestError } from "@azure/core-rest-pipeline";
import type { HttpClient as AzureHttpClient, PipelineRequest, PipelineResponse } from "@azure/core-rest-pipeline";
import type { HttpClient } from "../../http/client.ts";
import { HttpTransportError } from "../../http/client.ts";

/** Longest exchange when the SDK sets no timeout, MILLISECONDS. */
const DEFAULT_TIMEOUT_MS = 60_000;

/** Wraps the agent's `HttpClient` as the Azure SDK's `HttpClient`. */
export function azureTransport(http: HttpClient): AzureHttpClient {
  return {
    async sendRequest(request: PipelineRequest): Promise<PipelineResponse> {
      if (request.body !== undefined && request.body !== null && typeof request.body !== "string")
        throw new RestError("the agent's HTTP transport sends text bodies only", { request });
      if (request.formData) throw new RestError("the agent's HTTP transport sends no multipart bodies", { request });
      const headers: Record<string, string> = {};
      for (const [name, value] of request.headers) headers[name] = value;
      try {
        const r = await http.request({
          method: request.method,
          url: request.url,
          headers,
          ...(typeof request.body === "string" ? { body: request.body } : {}),
          timeoutMs: request.timeout > 0 ? request.timeout : DEFAULT_TIMEOUT_MS,
        });
        return { request, status: r.status, headers: createHttpHeaders(r.headers), bodyAsText: r.body };
      } catch (err) {
        if (err instanceof HttpTransportError)
          throw new RestError(err.message, { code: err.code ?? RestError.REQUEST_SEND_ERROR, request });
        throw err;
      }
    },
  };
}
