package dev.zklock.aop;

import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import dev.zklock.annotation.EnableDistributedLocks;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.leadership.ZkLeadership;
import dev.zklock.template.ZkLockTemplate;
import dev.zklock.template.observation.ZkLockAcquireObservationConvention;
import dev.zklock.template.observation.ZkLockHeldObservationConvention;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportAware;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotationAttributes;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.function.SingletonSupplier;

/**
 * The infrastructure of {@code @DistributedLock}, {@code @DistributedSemaphore} and
 * {@code @LeaderOnly}, as Spring's {@code ProxyCachingConfiguration} is for
 * {@code @Cacheable}: the operation source, the interceptor and the advisor that combines
 * them, each a bean of its own, and the verifier that checks, at startup, every locked
 * bean and its proxy. Imported by {@link EnableDistributedLocks @EnableDistributedLocks}
 * and by the Spring Boot auto-configuration.
 *
 * <p>
 * The advisor's order comes from {@code @EnableDistributedLocks(order = ...)}, else from
 * the {@code zklock.annotation.order} property, else
 * {@code Ordered.LOWEST_PRECEDENCE - 1}: just before {@code @Transactional}, so the lock
 * is taken before a transaction begins and released after it ends. Locked calls use the
 * application's {@link ZkLockTemplate}, or one made from its {@link ZkLockRegistry},
 * looked up at the first call, so that the advisor can exist before the ZooKeeper client;
 * one made here is stopped and closed with the context as the application's would be.
 *
 * <p>
 * The {@code @LeaderOnly} advisor is ordered one before the lock's, so leadership is
 * checked before the lock is taken; its calls run as leader work of the application's
 * {@link ZkLeadership}, which the verifier tells every group and leader-only component
 * once the singletons exist, before the context starts.
 *
 * @author zk-lock
 */
@Configuration(proxyBeanMethods = false)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
public class ProxyDistributedLockConfiguration implements ImportAware, EnvironmentAware {

	/**
	 * The property that orders the advisor when {@code @EnableDistributedLocks} does not.
	 */
	public static final String ORDER_PROPERTY = "zklock.annotation.order";

	private @Nullable AnnotationAttributes enableDistributedLocks;

	private @Nullable Environment environment;

	@Override
	public void setImportMetadata(AnnotationMetadata importMetadata) {
		this.enableDistributedLocks = AnnotationAttributes
			.fromMap(importMetadata.getAnnotationAttributes(EnableDistributedLocks.class.getName()));
	}

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
	}

	/**
	 * The advisor for {@code @DistributedLock} and {@code @DistributedSemaphore} methods,
	 * made of the operation source and the interceptor beans.
	 * @param operationSource finds the lock operation of a method
	 * @param interceptor holds the lock around a locked call
	 * @return the advisor
	 */
	@Bean(name = "distributedLockAdvisor")
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	DistributedLockAdvisor distributedLockAdvisor(LockOperationSource operationSource,
			DistributedLockInterceptor interceptor) {
		return new DistributedLockAdvisor(operationSource, interceptor, order());
	}

	/**
	 * Finds, parses and checks the lock annotation of a method, once per method and
	 * target class.
	 * @param beanFactory resolves placeholders in attributes and bean references in key
	 * expressions
	 * @return the operation source
	 */
	@Bean(name = "distributedLockOperationSource")
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LockOperationSource distributedLockOperationSource(BeanFactory beanFactory) {
		return new LockOperationSource(new LockOperationParser(beanFactory));
	}

	/**
	 * Holds the lock around each locked call.
	 * @param operationSource finds the lock operation of the method called
	 * @param beanFactory where the key expressions' bean references are resolved
	 * @param template the template locked calls run through, resolved at the first call
	 * @return the interceptor
	 */
	@Bean(name = "distributedLockInterceptor")
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static DistributedLockInterceptor distributedLockInterceptor(LockOperationSource operationSource,
			BeanFactory beanFactory, LockTemplateSupplier template) {
		return new DistributedLockInterceptor(operationSource, new LockKeyExpressionEvaluator(beanFactory), template);
	}

	/**
	 * The template locked calls run through: the application's, or one of our own made
	 * from its registry, which this bean stops and closes with the context, so that its
	 * minimum holds outlive a graceful shutdown as the application's template's do.
	 * @param template the application's template, if it has one
	 * @param registry the application's registry, for a template of our own otherwise
	 * @param observationRegistry observes waits and holds of a template of our own
	 * @param acquireObservationConvention names and tags the waits of a template of our
	 * own, if the application has one
	 * @param heldObservationConvention names and tags the holds of a template of our own,
	 * if the application has one
	 * @return the supplier of the template
	 */
	@Bean(name = "distributedLockTemplateSupplier")
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LockTemplateSupplier distributedLockTemplateSupplier(ObjectProvider<ZkLockTemplate> template,
			ObjectProvider<ZkLockRegistry> registry, ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<ZkLockAcquireObservationConvention> acquireObservationConvention,
			ObjectProvider<ZkLockHeldObservationConvention> heldObservationConvention) {
		return new LockTemplateSupplier(template, registry, observationRegistry, acquireObservationConvention,
				heldObservationConvention);
	}

	/**
	 * The advisor for {@code @LeaderOnly} methods and leader-only components, made of the
	 * operation source and the interceptor beans; ordered just before the
	 * {@code @DistributedLock} advisor, so that an instance that does not lead neither
	 * locks nor begins a transaction.
	 * @param operationSource finds the leader-only operation of a method
	 * @param interceptor runs a leader-only call as leader work, or skips it
	 * @return the advisor
	 */
	@Bean(name = "leaderOnlyAdvisor")
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	LeaderOnlyAdvisor leaderOnlyAdvisor(LeaderOperationSource operationSource, LeaderOnlyInterceptor interceptor) {
		int order = order();
		return new LeaderOnlyAdvisor(operationSource, interceptor, (order != Integer.MIN_VALUE) ? order - 1 : order);
	}

	/**
	 * Finds, parses and checks the {@code @LeaderOnly} of a method or its type, once per
	 * method and target class.
	 * @param beanFactory resolves placeholders in the group
	 * @return the operation source
	 */
	@Bean(name = "leaderOnlyOperationSource")
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LeaderOperationSource leaderOnlyOperationSource(BeanFactory beanFactory) {
		return new LeaderOperationSource(new LeaderOperationParser(beanFactory));
	}

	/**
	 * Runs each leader-only call as leader work of the application's
	 * {@link ZkLeadership}, looked up at the first call.
	 * @param operationSource finds the leader-only operation of the method called
	 * @param leadership the application's leadership
	 * @return the interceptor
	 */
	@Bean(name = "leaderOnlyInterceptor")
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LeaderOnlyInterceptor leaderOnlyInterceptor(LeaderOperationSource operationSource,
			ObjectProvider<ZkLeadership> leadership) {
		return new LeaderOnlyInterceptor(operationSource, SingletonSupplier.of(() -> leadership.getIfUnique(() -> {
			throw new IllegalStateException("@LeaderOnly methods need a ZkLeadership bean, and the application "
					+ "defines none (or several, none of them primary)");
		})));
	}

	/**
	 * Checks the proxies Spring makes for locked and leader-only beans, and tells the
	 * leadership about the leader-only ones.
	 * @return the verifier
	 */
	@Bean(name = "distributedLockVerifier")
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static BeanPostProcessor distributedLockVerifier() {
		return new LockedBeanVerifier();
	}

	private int order() {
		if (this.enableDistributedLocks != null) {
			return this.enableDistributedLocks.<Integer>getNumber("order");
		}
		Integer order = (this.environment != null) ? this.environment.getProperty(ORDER_PROPERTY, Integer.class) : null;
		return (order != null) ? order : Ordered.LOWEST_PRECEDENCE - 1;
	}

}
