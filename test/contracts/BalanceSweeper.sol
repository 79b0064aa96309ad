// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

interface IERC20Minimal {
    function balanceOf(address owner) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
}

/// Sends every unit of a token it holds: the same signed call moves another amount on a chain
/// where it holds another balance. The deep-reorg test (issue 41) mines it on two branches.
contract BalanceSweeper {
    function sweep(address token, address to) external {
        require(IERC20Minimal(token).transfer(to, IERC20Minimal(token).balanceOf(address(this))), "transfer failed");
    }
}
