// Wrapper around the payment provider's browser SDK.
// Card data never touches our code: the provider renders the card fields in
// its own iframe and returns a single-use token.

export interface PaymentSdk {
  mount(selector: string, options: { locale: string }): Promise<void>;
  tokenize(): Promise<{ token: string } | { error: string }>;
  unmount(): void;
}

declare global {
  interface Window {
    PayProvider?: { create(publishableKey: string): PaymentSdk };
  }
}

const PUBLISHABLE_KEY = import.meta.env.VITE_PAYMENT_PUBLISHABLE_KEY as string | undefined;

let sdk: PaymentSdk | null = null;

export async function mountCardFields(selector: string, locale: string): Promise<void> {
  if (!PUBLISHABLE_KEY) throw new Error("payment publishable key is not configured");
  if (!window.PayProvider) throw new Error("payment SDK failed to load");
  sdk = window.PayProvider.create(PUBLISHABLE_KEY);
  await sdk.mount(selector, { locale });
}

export async function tokenizeCard(): Promise<string> {
  if (!sdk) throw new Error("card fields are not mounted");
  const result = await sdk.tokenize();
  if ("error" in result) throw new Error(result.error);
  return result.token;
}

export function unmountCardFields(): void {
  sdk?.unmount();
  sdk = null;
}
