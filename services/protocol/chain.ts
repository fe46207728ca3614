import { defineChain } from 'viem'
import { CHAIN_ID } from './constants.ts'

/**
 * The viem chain of the test network (and of the embedded local chain, which shares its id).
 * Gas is paid in the stablecoin there, which has 18 decimals as the native currency.
 * @example createPublicClient({ chain: serviceChain(rpcUrl), transport: http(rpcUrl) })
 */
export function serviceChain(rpcUrl: string) {
  return defineChain({
    id: CHAIN_ID,
    name: 'Service test network',
    nativeCurrency: { name: 'USDC', symbol: 'USDC', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  })
}
