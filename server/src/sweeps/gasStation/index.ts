export * from './gasStation';
export * from './gasTopUp';
export * from './gasStationView';
export * from './quoteFee';
export * from './stationSpending';
