import { SHOWN_DECIMALS, shownAmount } from './money';

/** The browser locale's group and decimal separators ("1,000.5", "1.000,5", "1 000,5"): asked of Intl once. */
const [groupSeparator, decimalPoint] = (() => {
  const parts = new Intl.NumberFormat().formatToParts(1000.5);
  return [parts.find((p) => p.type === 'group')?.value ?? ',', parts.find((p) => p.type === 'decimal')?.value ?? '.'];
})();

/** An amount with its symbol: shown cut and grouped, exact on hover and on copy. */
export function Amount({ value, symbol }: { value: string; symbol?: string }) {
  const exact = symbol ? `${value} ${symbol}` : value;
  return (
    <span
      class="amount"
      title={exact}
      data-exact={value}
      onCopy={(e) => {
        // A selection inside the figure copies the exact amount, not the cut one; a selection that
        // reaches beyond it (a whole row) is left to the browser.
        const selection = window.getSelection();
        const inside = (node: Node | null | undefined) => node != null && e.currentTarget.contains(node);
        if (!e.clipboardData || !inside(selection?.anchorNode) || !inside(selection?.focusNode)) return;
        e.clipboardData.setData('text/plain', exact);
        e.preventDefault();
      }}
    >
      {shownAmount(value, SHOWN_DECIMALS, groupSeparator, decimalPoint)}
      {symbol ? ` ${symbol}` : ''}
    </span>
  );
}
