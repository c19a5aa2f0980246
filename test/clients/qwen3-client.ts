/** The TrainClient most tests drive: the Qwen3 renderer over SGLang `/generate`. */
import { TrainClient, type TrainClientOptions } from "../../packages/core/src/clients/train.ts";
import { createRenderer } from "../../packages/core/src/renderers/index.ts";
import { SglangTransport, type SglangTransportOptions } from "../../packages/core/src/transport/index.ts";

/** A Qwen3 TrainClient for the engine at `baseUrl`, with these transport and client options. */
export function qwen3TrainClient(
  baseUrl: string,
  transport: Omit<SglangTransportOptions, "baseUrl"> = {},
  client: Omit<TrainClientOptions, "renderer" | "transport"> = {},
): TrainClient {
  return new TrainClient({
    renderer: createRenderer("qwen3"),
    transport: new SglangTransport({ baseUrl, ...transport }),
    ...client,
  });
}
