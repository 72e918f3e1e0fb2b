-- The ledger is scoped by consumer so that two logical consumers sharing one database
-- each apply a message once to their own balances.
create table user_points (
    consumer  varchar(100) not null,
    user_id   bigint       not null,
    balance   bigint       not null,
    constraint user_points_pkey primary key (consumer, user_id),
    constraint user_points_balance_check check (balance >= 0)
);

create sequence point_grant_seq start with 1 increment by 50;

create table point_grant (
    id          bigint       not null,
    consumer    varchar(100) not null,
    user_id     bigint       not null,
    amount      bigint       not null,
    message_id  uuid         not null,
    granted_at  timestamptz  not null,
    constraint point_grant_pkey primary key (id),
    -- a second guard behind the inbox: one grant per message and consumer
    constraint point_grant_consumer_message_id_key unique (consumer, message_id)
);

create index point_grant_consumer_user_id_idx on point_grant (consumer, user_id, granted_at desc);
