// shop-checkout: one order with 2 Blue Ceramic Mugs + 1 Linen Tea Towel, express, to the given address.
import { readState, sameText, writeReward } from './grade-kit.mjs';

const state = await readState();
const order = state.orders.length === 1 ? state.orders[0] : undefined;
const items = Object.fromEntries((order?.items ?? []).map((l) => [l.sku, l.qty]));
writeReward(
  [
    { name: 'exactly one order placed', pass: !!order, detail: `${state.orders.length} orders` },
    { name: 'items: 2 x mug-blue, 1 x towel-linen, nothing else', pass: !!order && Object.keys(items).length === 2 && items['mug-blue'] === 2 && items['towel-linen'] === 1, detail: JSON.stringify(items) },
    { name: 'express shipping', pass: order?.shipping === 'express', detail: order?.shipping },
    {
      name: 'shipped to Dana Whitfield, 14 Harbour Road, Portsmouth',
      pass: !!order && sameText(order.name, 'Dana Whitfield') && sameText(order.address, '14 Harbour Road') && sameText(order.city, 'Portsmouth'),
      detail: order ? `${order.name} / ${order.address} / ${order.city}` : undefined,
    },
  ],
  'partial',
);
