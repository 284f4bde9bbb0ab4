// A provider whose module (and SDK) is loaded on its first use. The SDKs are
// most of the server's start-up time and memory; a server that only ever talks
// to one provider should never load the other two.
import type { DiscoveredLimits, LlmRequest, LlmResponse, ModelLimits, Provider, StreamHandlers } from './types.js';

type Discovering = Provider & { discoverLimits(signal: AbortSignal): Promise<DiscoveredLimits | { failed: string }> };

/**
 * `load` imports the provider's module and builds it. `discovers`: the real
 * provider can ask its server for the model's limits (the window code looks
 * for the method, so the wrapper has it only when the real one does).
 */
export function lazyProvider(model: string, limits: ModelLimits, discovers: boolean, load: () => Promise<Provider>): Provider {
  let loading: Promise<Provider> | undefined;
  const real = () => (loading ??= load());
  const provider: Provider = {
    model,
    limits,
    async complete(request: LlmRequest, signal: AbortSignal, stream?: StreamHandlers): Promise<LlmResponse> {
      return (await real()).complete(request, signal, stream);
    },
  };
  if (!discovers) return provider;
  const discovering: Discovering = {
    ...provider,
    async discoverLimits(signal) {
      return ((await real()) as Discovering).discoverLimits(signal);
    },
  };
  return discovering;
}
