export type { PayForCallParameters, PayForCallReturnType } from "./sdk/payForCall.ts";
export { CallFailedError, payForCall } from "./sdk/payForCall.ts";
export type { BuyerChain, PinnedTerms } from "./sdk/pinPaymentTerms.ts";
export { buyerChain, PinError, pinPaymentTerms } from "./sdk/pinPaymentTerms.ts";
export { signEscrowPayment, signExactPayment } from "./sdk/signPayment.ts";
