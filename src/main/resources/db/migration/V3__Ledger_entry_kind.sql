-- Redemptions are ledger entries too (negative amounts), so that a balance always equals the sum of its entries.
alter table point_grant add column kind varchar(20) not null default 'GRANT';
alter table point_grant alter column kind drop default;
alter table point_grant add constraint point_grant_kind_check check (
    (kind = 'GRANT' and amount > 0) or (kind = 'REDEMPTION' and amount < 0));
