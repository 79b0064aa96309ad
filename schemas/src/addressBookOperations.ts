import type { Operation } from './operations';

/** The destination address book's operations (issue 42 §7), listed in the OpenAPI document after the treasury's. */
export const ADDRESS_BOOK_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/address-book',
    operationId: 'listAddressBook',
    summary:
      "The address book's live entries the key sees (company-wide ones and its wallets' own), each cooling_off until usableFrom, then usable",
    action: 'withdrawals:read',
    response: 'AddressBookEntryList',
  },
  {
    method: 'post',
    path: '/address-book',
    operationId: 'createAddressBookEntry',
    summary:
      "Add a named destination for one wallet (walletId) or every wallet of the company on chain/network; validated and normalised by the chain's plugin; it can receive after addressBook.coolingOffMs (an address_book policy refuses it before with 403 address_cooling_off). 400 validation_failed / invalid_address; 409 conflict when already listed; 422 for a chain no plugin serves",
    action: 'withdrawals:create (on the wallet; every wallet for a company-wide entry)',
    request: 'AddressBookEntryCreateRequest',
    response: 'AddressBookEntry',
    status: 201,
  },
  {
    method: 'delete',
    path: '/address-book/{id}',
    operationId: 'deleteAddressBookEntry',
    summary: 'Remove an entry (audited; an address_book policy refuses it from now on, also for withdrawals already prepared)',
    action: 'withdrawals:create (on the wallet; every wallet for a company-wide entry)',
    status: 204,
  },
];
