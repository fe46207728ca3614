export type { AcceptReceiptReturnType } from "./sdk/acceptReceipt.ts";
export { acceptReceipt } from "./sdk/acceptReceipt.ts";
export { authorizationWindow, MAX_SIGNED_WINDOW_SECONDS } from "./sdk/authorizationWindow.ts";
export type { BuyerChain } from "./sdk/buyerChain.ts";
export { buyerChain } from "./sdk/buyerChain.ts";
export { BuyerError } from "./sdk/buyerError.ts";
export { checkCommittedReceipt } from "./sdk/checkCommittedReceipt.ts";
export { checkDepositAuthorization } from "./sdk/checkDepositAuthorization.ts";
export { exampleRequests } from "./sdk/exampleRequests.ts";
export type { AmountView } from "./sdk/formatAmount.ts";
export { formatAmount } from "./sdk/formatAmount.ts";
export type {
  LedgerHold,
  LedgerPayment,
  LedgerView,
  OpenSpendLedgerParameters,
  SpendLedger,
} from "./sdk/openSpendLedger.ts";
export { ledgerFile, openSpendLedger } from "./sdk/openSpendLedger.ts";
export { LedgerUnreadableError } from "./sdk/parseLedger.ts";
export type { PayForCallParameters, PayForCallReturnType } from "./sdk/payForCall.ts";
export { assertReceiptMatches, payForCall } from "./sdk/payForCall.ts";
export { PaymentUnknownError } from "./sdk/paymentUnknownError.ts";
export { PinError } from "./sdk/pinError.ts";
export type { PinnedTerms } from "./sdk/pinPaymentTerms.ts";
export { pinPaymentTerms } from "./sdk/pinPaymentTerms.ts";
export type { ProcessNonces } from "./sdk/processNonces.ts";
export { createProcessNonces } from "./sdk/processNonces.ts";
export type { ReadBalanceReturnType } from "./sdk/readBalance.ts";
export { readBalance } from "./sdk/readBalance.ts";
export type { ChainDebit, ReadDebitsParameters } from "./sdk/readDebits.ts";
export { readDebits } from "./sdk/readDebits.ts";
export type { PinnedCard } from "./sdk/readPinnedCard.ts";
export { readPinnedCard } from "./sdk/readPinnedCard.ts";
export type { Registration } from "./sdk/readRegistration.ts";
export { readRegistration } from "./sdk/readRegistration.ts";
export type { ObjectSchema, ResourceSchemas } from "./sdk/readResourceSchemas.ts";
export { readResourceSchemas } from "./sdk/readResourceSchemas.ts";
export type { RecoverResultReturnType } from "./sdk/recoverResult.ts";
export { recoverResult } from "./sdk/recoverResult.ts";
export { requestQuote } from "./sdk/requestQuote.ts";
export type { ResourceFilters, SearchResourcesReturnType } from "./sdk/searchResources.ts";
export { searchResources } from "./sdk/searchResources.ts";
export type { BuyerEscrowCall } from "./sdk/sendEscrowTransaction.ts";
export { sendEscrowTransaction } from "./sdk/sendEscrowTransaction.ts";
export type { DepositAuthorization } from "./sdk/signDepositAuthorization.ts";
export { signDepositAuthorization } from "./sdk/signDepositAuthorization.ts";
export { signEscrowPayment, signExactPayment } from "./sdk/signPayment.ts";
export { verifyDebit } from "./sdk/verifyDebit.ts";
export { FileLockTimeoutError, withFileLock } from "./sdk/withFileLock.ts";
