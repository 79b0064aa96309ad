// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

/**
 * Never deployed: its creation code is sent as one `eth_call` without `to` on a past block, and
 * the constructor's return value is the answer (a "deployless" read, as viem's multicall does).
 * Reads `balanceOf(holders[i])` of `tokens[i]` for every i in that block's state. An answer that is
 * not what a plain `eth_call` would read as a balance (a failed call, or return data of neither 0
 * nor 32 bytes) is flagged `irregular`, and walletd reads that one alone (verbs/balancesAt.ts).
 */
contract BalancesAt {
    constructor(address[] memory tokens, address[] memory holders) {
        uint256 n = tokens.length;
        uint256[] memory values = new uint256[](n);
        bytes memory irregular = new bytes(n);
        for (uint256 i = 0; i < n; i++) {
            (bool ok, bytes memory ret) = tokens[i].staticcall{gas: 1000000}(
                abi.encodeWithSelector(0x70a08231, holders[i])
            );
            if (ok && ret.length == 32) values[i] = abi.decode(ret, (uint256));
            else if (!ok || ret.length != 0) irregular[i] = 0x01;
        }
        // The answer is the "code" the constructor returns: it starts with a 0x00 byte (EIP-3541).
        bytes memory out = abi.encode(values, irregular);
        assembly {
            return(add(out, 32), mload(out))
        }
    }
}
