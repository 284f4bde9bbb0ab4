// A provider whose module (and SDK) is loaded on its first use. The SDKs are
// most of the server's start-up time and memory; a server that only ever talks
// to one provider should never load the other two.
import type { ThinkingCapabilities } from '../../shared/protocol.js';
import type { DiscoveredLimits, DiscoveryFailure, LlmRequest, LlmResponse, ModelLimits, Provider, ProviderCompactionResult, StreamHandlers } from './types.js';

/**
 * What the real provider can do besides complete(): the agent looks for each
 * method (limits discovery, provider-side compaction, capabilities from the
 * Models API), so the wrapper has a method only when the real one does.
 */
export interface LazyFeatures {
  discovers?: boolean;
  compacts?: boolean;
  capabilities?: boolean;
}

type Full = Provider & {
  discoverLimits(signal: AbortSignal): Promise<DiscoveredLimits | DiscoveryFailure>;
  compactHistory(request: Pick<LlmRequest, 'system' | 'tools' | 'messages'> & { instructions?: string }, signal: AbortSignal): Promise<ProviderCompactionResult>;
  adoptCapabilities(thinking: ThinkingCapabilities | undefined): void;
};

/** `load` imports the provider's module and builds it. */
export function lazyProvider(model: string, limits: ModelLimits, features: LazyFeatures, load: () => Promise<Provider>): Provider {
  let loaded: Full | undefined;
  /** Capabilities adopted before the module loaded: applied when it does. */
  let adopted: { thinking: ThinkingCapabilities | undefined } | undefined;
  let loading: Promise<Full> | undefined;
  const real = () =>
    (loading ??= load().then((p) => {
      loaded = p as Full;
      if (adopted) loaded.adoptCapabilities(adopted.thinking);
      return loaded;
    }));
  const provider: Provider & Partial<Full> = {
    model,
    limits,
    async complete(request: LlmRequest, signal: AbortSignal, stream?: StreamHandlers): Promise<LlmResponse> {
      return (await real()).complete(request, signal, stream);
    },
  };
  if (features.discovers) provider.discoverLimits = async (signal) => (await real()).discoverLimits(signal);
  if (features.compacts) provider.compactHistory = async (request, signal) => (await real()).compactHistory(request, signal);
  if (features.capabilities) {
    provider.adoptCapabilities = (thinking) => {
      adopted = { thinking };
      loaded?.adoptCapabilities(thinking);
    };
  }
  return provider;
}
