// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Contracts that move native coins the ways exchanges, batch payouts and Safe multisigs do
/// (issue 41 §1): every value they send is an internal call, seen only in the block's traces.
contract Payouts {
    /// Forwards what it is sent to `to` (a forwarder / a smart account paying out).
    function forward(address payable to) external payable {
        (bool ok, ) = to.call{value: msg.value}("");
        require(ok, "forward failed");
    }

    /// One transaction paying several addresses (an exchange's batch withdrawal).
    function batch(address payable[] calldata to, uint256[] calldata amounts) external payable {
        for (uint256 i = 0; i < to.length; i++) {
            (bool ok, ) = to[i].call{value: amounts[i]}("");
            require(ok, "payout failed");
        }
    }

    /// Safe-like: the contract pays from its own balance (funded beforehand) with data and value.
    function execTransaction(address to, uint256 value, bytes calldata data) external returns (bool ok) {
        (ok, ) = to.call{value: value}(data);
        require(ok, "exec failed");
    }

    /// Pays `to` inside a call that reverts afterwards, and catches the revert: the payment never happened.
    function payThenCatch(address payable to) external payable {
        try this.payAndRevert(to) {} catch {}
    }

    function payAndRevert(address payable to) external payable {
        (bool ok, ) = to.call{value: 1 ether / 100}("");
        require(ok);
        revert("undone");
    }

    /// Runs `Payouts.forward`'s code in this contract's context: the value moves as this contract's, via DELEGATECALL.
    function delegateForward(address impl, address payable to) external payable {
        (bool ok, ) = impl.delegatecall(abi.encodeWithSignature("forward(address)", to));
        require(ok, "delegate failed");
    }

    /// DELEGATECALL into `target` (a deposit address: no code): the trace shows the value on the
    /// frame, yet nothing moves; crediting it would invent money.
    function delegateTo(address target) external payable {
        (bool ok, ) = target.delegatecall("");
        require(ok, "delegate failed");
    }

    /// Creates a contract with the value that destroys itself in its constructor, paying `to`.
    function payBySelfdestruct(address payable to) external payable {
        new Heir{value: msg.value}(to);
    }

    /// Pays `to`, then reverts the whole transaction.
    function payThenFail(address payable to) external payable {
        (bool ok, ) = to.call{value: msg.value}("");
        require(ok);
        revert("whole transaction fails");
    }

    receive() external payable {}
}

/// Sends its whole balance to `to` by SELFDESTRUCT (created and destroyed in one transaction).
contract Heir {
    constructor(address payable to) payable {
        selfdestruct(to);
    }
}
