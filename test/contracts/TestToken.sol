// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// A minimal ERC-20 for the integration tests: mint, transfer, and a batch send that emits
/// several Transfer events in one transaction. Deploy it twice to get a same-symbol fake.
/// Two switches misbehave on purpose: `paused` makes transfers revert (a withdrawal mined and
/// failed), `quiet` moves balances without the Transfer event (a receipt that proves nothing).
contract TestToken {
    string public name;
    string public symbol;
    uint8 public immutable decimals;
    mapping(address => uint256) public balanceOf;
    bool public paused;
    bool public quiet;

    event Transfer(address indexed from, address indexed to, uint256 value);

    constructor(string memory name_, string memory symbol_, uint8 decimals_) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
    }

    function setQuirks(bool paused_, bool quiet_) external {
        paused = paused_;
        quiet = quiet_;
    }

    function mint(address to, uint256 amount) external {
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function transfer(address to, uint256 amount) public returns (bool) {
        require(!paused, "paused");
        require(balanceOf[msg.sender] >= amount, "insufficient balance");
        balanceOf[msg.sender] -= amount;
        balanceOf[to] += amount;
        if (!quiet) emit Transfer(msg.sender, to, amount);
        return true;
    }

    function batchTransfer(address[] calldata to, uint256[] calldata amounts) external {
        for (uint256 i = 0; i < to.length; i++) transfer(to[i], amounts[i]);
    }
}
