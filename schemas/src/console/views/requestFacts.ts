/**
 * What an approver needs to decide on a withdrawal request (`GET /console/api/requests/:id/facts`;
 * server/src/withdrawals/requests/requestFacts.ts): the wallet's funds, each destination's history
 * with the company, and the policies that asked for the approval, in words.
 */
export interface ConsoleRequestFacts {
  /** The wallet's available balance of the request's asset (credited less reserved), display units. */
  available: string;
  symbol: string;
  destinations: {
    address: string;
    /** Confirmed withdrawals of the company to this address before. */
    paidBefore: number;
    /** Its name in the company's address book (live entry), else null. */
    addressBook: string | null;
  }[];
  /** The policies asking for approval now, each as its sentence. */
  policies: { id: number; sentence: string }[];
}
