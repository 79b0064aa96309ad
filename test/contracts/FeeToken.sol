// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// An ERC-20 that takes a fee on every transfer (basis points of the amount, burned or paid to a
/// collector), for the tests of tokens that misreport (issue 41 §3). `logsNet` false: the Transfer
/// log to the recipient reports the full amount while only the amount less the fee arrives (the
/// token over-credits whoever trusts its logs). `logsNet` true: it logs what arrived, and the fee
/// as a Transfer of its own (an honest fee token). `transferFrom` spends an allowance as
/// OpenZeppelin's does: a transfer of 0 needs none.
contract FeeToken {
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    uint256 public immutable feeBps;
    address public immutable collector;
    bool public immutable logsNet;
    uint8 public constant decimals = 6;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(uint256 feeBps_, address collector_, bool logsNet_) {
        feeBps = feeBps_;
        collector = collector_;
        logsNet = logsNet_;
    }

    function mint(address to, uint256 amount) external {
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        move(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= amount, "allowance");
        allowance[from][msg.sender] = allowed - amount;
        move(from, to, amount);
        return true;
    }

    function move(address from, address to, uint256 amount) internal {
        require(balanceOf[from] >= amount, "insufficient balance");
        uint256 fee = (amount * feeBps) / 10000;
        balanceOf[from] -= amount;
        balanceOf[to] += amount - fee;
        if (collector != address(0)) balanceOf[collector] += fee;
        if (logsNet) {
            emit Transfer(from, to, amount - fee);
            if (fee > 0) emit Transfer(from, collector, fee);
        } else {
            emit Transfer(from, to, amount);
        }
    }
}
