-- fence: the fencing token of the last lock holder that wrote the row (see docs/fencing.md)
create table if not exists stock (sku varchar(64) primary key, qty int not null, fence bigint default 0 not null);
create table if not exists orders (id bigint auto_increment primary key, sku varchar(64) not null, qty int not null);
merge into stock (sku, qty) key (sku) values ('apple', 100);
-- The restock job's ledger: one row per restock, written by the leader of the group "restock"
create table if not exists restock (id bigint auto_increment primary key, sku varchar(64) not null, qty int not null, epoch bigint not null);
