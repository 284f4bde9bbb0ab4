// A provider whose module (and SDK) is loaded on its first use. The SDKs are
// most of the server's start-up time and memory; a server that only ever talks
// to one provider should never load the other two. The SDKs are optional
// dependencies (an install with --omit=optional leaves them out): a missing one
// is a clear error on the session's first call, not a crash at start.
import type { ThinkingCapabilities } from '../../shared/protocol.js';
import { ProviderError, type DiscoveredLimits, type DiscoveryFailure, type LlmRequest, type LlmResponse, type ModelLimits, type Provider, type ProviderCompactionResult, type StreamHandlers } from './types.js';

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

/** The error for a provider whose SDK package is not installed; any other failure of `load` as it is. */
function missingSdk(err: unknown, model: string, sdk: string): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' || !String((err as Error).message).includes(`'${sdk}'`)) return err;
  return new ProviderError(
    `model "${model}" needs the package ${sdk}, which is not installed (an install with --omit=optional leaves it out): run npm install ${sdk} where skein is installed, then restart skein`,
    undefined,
    false,
  );
}

/** `load` imports the provider's module and builds it; `sdk` is the npm package it needs. */
export function lazyProvider(model: string, limits: ModelLimits, sdk: string, features: LazyFeatures, load: () => Promise<Provider>): Provider {
  let loaded: Full | undefined;
  /** Capabilities adopted before the module loaded: applied when it does. */
  let adopted: { thinking: ThinkingCapabilities | undefined } | undefined;
  let loading: Promise<Full> | undefined;
  const real = () =>
    (loading ??= load().then(
      (p) => {
        loaded = p as Full;
        if (adopted) loaded.adoptCapabilities(adopted.thinking);
        return loaded;
      },
      (err: unknown) => {
        throw missingSdk(err, model, sdk);
      },
    ));
  const provider: Provider & Partial<Full> = {
    model,
    limits,
    async complete(request: LlmRequest, signal: AbortSignal, stream?: StreamHandlers): Promise<LlmResponse> {
      return (await real()).complete(request, signal, stream);
    },
  };
  if (features.discovers) {
    // Never throws (window.ts relies on it): a module that cannot load is said by complete(), the call after.
    provider.discoverLimits = async (signal) => {
      const loadedNow = await real().catch((err: unknown) => ({ failed: (err as Error).message }));
      return 'failed' in loadedNow ? loadedNow : loadedNow.discoverLimits(signal);
    };
  }
  if (features.compacts) provider.compactHistory = async (request, signal) => (await real()).compactHistory(request, signal);
  if (features.capabilities) {
    provider.adoptCapabilities = (thinking) => {
      adopted = { thinking };
      loaded?.adoptCapabilities(thinking);
    };
  }
  return provider;
}
