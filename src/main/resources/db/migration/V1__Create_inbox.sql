-- One row per (consumer, message id): the unique constraint is the idempotency decision.
create sequence inbox_message_seq start with 1 increment by 50;

create table inbox_message (
    id            bigint       not null,
    consumer      varchar(100) not null,
    message_id    uuid         not null,
    message_type  varchar(100) not null,
    payload_json  jsonb        not null,
    payload_hash  varchar(64)  not null,
    outcome       varchar(40)  not null,
    received_at   timestamptz  not null,
    processed_at  timestamptz,
    constraint inbox_message_pkey primary key (id),
    constraint inbox_message_consumer_message_id_key unique (consumer, message_id)
);
