package dev.zklock.sample;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The shop's HTTP API.
 *
 * @author zk-lock
 */
@RestController
public class ShopController {

	private final OrderService orders;

	private final StockRepository stock;

	private final OversellDemo demo;

	private final PausedHolderDemo pausedHolder;

	public ShopController(OrderService orders, StockRepository stock, OversellDemo demo,
			PausedHolderDemo pausedHolder) {
		this.orders = orders;
		this.stock = stock;
		this.demo = demo;
		this.pausedHolder = pausedHolder;
	}

	/**
	 * Place an order.
	 * @param request the SKU and quantity
	 * @return the result; 409 if the stock did not suffice
	 */
	@PostMapping("/orders")
	public ResponseEntity<OrderResult> order(@RequestBody OrderRequest request) {
		OrderResult result = this.orders.order(request.sku(), request.qty());
		return result.accepted() ? ResponseEntity.ok(result) : ResponseEntity.status(409).body(result);
	}

	/**
	 * Read a SKU's stock.
	 * @param sku the SKU
	 * @return the stock level
	 */
	@GetMapping("/stock/{sku}")
	public ResponseEntity<StockLevel> stock(@PathVariable String sku) {
		int level = this.stock.stock(sku);
		return (level < 0) ? ResponseEntity.notFound().build() : ResponseEntity.ok(new StockLevel(sku, level));
	}

	/**
	 * Set a SKU's stock.
	 * @param sku the SKU
	 * @param qty the stock level
	 * @return the stock level
	 */
	@PutMapping("/stock/{sku}")
	public StockLevel setStock(@PathVariable String sku, @RequestParam int qty) {
		this.stock.reset(sku, qty);
		return new StockLevel(sku, qty);
	}

	/**
	 * Run the oversell demo.
	 * @param stock the initial stock
	 * @param orders the concurrent orders
	 * @return the report
	 * @throws Exception if the demo fails
	 */
	@PostMapping("/demo/oversell")
	public OversellDemo.Report oversell(@RequestParam(defaultValue = "20") int stock,
			@RequestParam(defaultValue = "50") int orders) throws Exception {
		return this.demo.run(stock, Math.min(orders, 500));
	}

	/**
	 * Run the paused-holder demo: a holder whose lock is lost while it is held back
	 * writes its stale stock, unfenced, through a fenced update alone, and through the
	 * shop's fenced read and update, while the next holder has written, or has only read.
	 * @param rounds the rounds of each run, at most 100
	 * @return the report
	 * @throws Exception if the demo fails
	 */
	@PostMapping("/demo/paused-holder")
	public PausedHolderDemo.Report pausedHolder(@RequestParam(defaultValue = "5") int rounds) throws Exception {
		return this.pausedHolder.run(Math.max(1, Math.min(rounds, 100)));
	}

	/**
	 * An order request.
	 *
	 * @param sku the SKU
	 * @param qty the quantity
	 */
	public record OrderRequest(String sku, int qty) {
	}

	/**
	 * A stock level.
	 *
	 * @param sku the SKU
	 * @param qty the units in stock
	 */
	public record StockLevel(String sku, int qty) {
	}

}
