/**
 * Fenced JDBC writes: a store that refuses the write of a holder whose lock was lost and
 * taken by another, checked against the lock's fencing token
 * ({@link dev.zklock.template.LockContext#fencingToken()}). Two shapes:
 * {@link dev.zklock.jdbc.JdbcFencing#fenceTransaction() a fenced transaction} (one
 * statement that fences every write after it in the same transaction) and
 * {@link dev.zklock.jdbc.JdbcFencing#update a fenced record} (a write that checks and
 * stores the token in the record itself). Needs {@code spring-jdbc} on the class path; H2
 * and PostgreSQL.
 */
@NullMarked
package dev.zklock.jdbc;

import org.jspecify.annotations.NullMarked;
