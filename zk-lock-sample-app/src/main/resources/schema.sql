create table if not exists stock (sku varchar(64) primary key, qty int not null);
create table if not exists orders (id bigint auto_increment primary key, sku varchar(64) not null, qty int not null);
merge into stock key (sku) values ('apple', 100);
