-- Retention deletes the oldest inbox rows in small batches; this index makes each batch cheap.
create index inbox_message_received_at_idx on inbox_message (received_at);
