/** The engine's transaction and instruction errors as a Solana RPC names them (litesvm reports their indices). */
const TX_ERRORS =
  'AccountInUse,AccountLoadedTwice,AccountNotFound,ProgramAccountNotFound,InsufficientFundsForFee,InvalidAccountForFee,AlreadyProcessed,BlockhashNotFound,CallChainTooDeep,MissingSignatureForFee,InvalidAccountIndex,SignatureFailure,InvalidProgramForExecution,SanitizeFailure,ClusterMaintenance,AccountBorrowOutstanding,WouldExceedMaxBlockCostLimit,UnsupportedVersion,InvalidWritableAccount,WouldExceedMaxAccountCostLimit,WouldExceedAccountDataBlockLimit,TooManyAccountLocks,AddressLookupTableNotFound,InvalidAddressLookupTableOwner,InvalidAddressLookupTableData,InvalidAddressLookupTableIndex,InvalidRentPayingAccount,WouldExceedMaxVoteCostLimit,WouldExceedAccountDataTotalLimit,MaxLoadedAccountsDataSizeExceeded,ResanitizationNeeded,InvalidLoadedAccountsDataSizeLimit,UnbalancedTransaction,ProgramCacheHitMaxLimit,CommitCancelled'.split(
    ',',
  );
const IX_ERRORS =
  'GenericError,InvalidArgument,InvalidInstructionData,InvalidAccountData,AccountDataTooSmall,InsufficientFunds,IncorrectProgramId,MissingRequiredSignature,AccountAlreadyInitialized,UninitializedAccount,UnbalancedInstruction,ModifiedProgramId,ExternalAccountLamportSpend,ExternalAccountDataModified,ReadonlyLamportChange,ReadonlyDataModified,DuplicateAccountIndex,ExecutableModified,RentEpochModified,NotEnoughAccountKeys,AccountDataSizeChanged,AccountNotExecutable,AccountBorrowFailed,AccountBorrowOutstanding,DuplicateAccountOutOfSync,InvalidError,ExecutableDataModified,ExecutableLamportChange,ExecutableAccountNotRentExempt,UnsupportedProgramId,CallDepth,MissingAccount,ReentrancyNotAllowed,MaxSeedLengthExceeded,InvalidSeeds,InvalidRealloc,ComputationalBudgetExceeded,PrivilegeEscalation,ProgramEnvironmentSetupFailure,ProgramFailedToComplete,ProgramFailedToCompile,Immutable,IncorrectAuthority,AccountNotRentExempt,InvalidAccountOwner,ArithmeticOverflow,UnsupportedSysvar,IllegalOwner,MaxAccountsDataAllocationsExceeded,MaxAccountsExceeded,MaxInstructionTraceLengthExceeded,BuiltinProgramsMustConsumeComputeUnits,BorshIoError'.split(
    ',',
  );

/** The engine's error in the RPC's JSON form ({"InstructionError":[2,{"Custom":1}]}) and its message. */
export function rpcError(err: unknown): { json: unknown; message: string } {
  if (typeof err === 'number') {
    const name = TX_ERRORS[err] ?? `TransactionError${err}`;
    const message =
      name === 'AlreadyProcessed'
        ? 'This transaction has already been processed'
        : name === 'BlockhashNotFound'
          ? 'Blockhash not found'
          : name === 'InsufficientFundsForFee'
            ? 'Attempt to debit an account but found no record of a prior credit.'
            : name;
    return { json: name, message };
  }
  const e = err as { index?: number; err?: () => unknown; accountIndex?: number };
  if (typeof e.index === 'number' && typeof e.err === 'function') {
    const inner = e.err() as number | { code?: number; msg?: string };
    if (typeof inner === 'number') {
      const name = IX_ERRORS[inner] ?? `InstructionError${inner}`;
      return { json: { InstructionError: [e.index, name] }, message: `Error processing Instruction ${e.index}: ${name}` };
    }
    if (typeof inner.code === 'number')
      return {
        json: { InstructionError: [e.index, { Custom: inner.code }] },
        message: `Error processing Instruction ${e.index}: custom program error: 0x${inner.code.toString(16)}`,
      };
    return { json: { InstructionError: [e.index, { BorshIoError: inner.msg ?? '' }] }, message: `Error processing Instruction ${e.index}` };
  }
  if (typeof e.accountIndex === 'number')
    return { json: { InsufficientFundsForRent: { account_index: e.accountIndex } }, message: 'InsufficientFundsForRent' };
  return { json: String(err), message: String(err) };
}
